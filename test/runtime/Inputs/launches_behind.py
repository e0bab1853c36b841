"""Summarizes the stand-in CUDA driver's log of async launches (FW_FAKE_CUDA_LOG): how
many launches there were, how many found another kernel still unfinished on their
stream, and the most they found."""
import re
import sys

behind = [int(m.group(1)) for line in open(sys.argv[1])
          if (m := re.match(r"launch \S+ grid \d+ block \d+ behind (\d+)$", line.strip()))]
print(f"launches {len(behind)}, behind another: {sum(b > 0 for b in behind)}, "
      f"most behind: {max(behind, default=0)}")
