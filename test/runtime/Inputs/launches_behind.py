"""Summarizes the stand-in CUDA driver's log of async launches (FW_FAKE_CUDA_LOG): how
many launches there were, how many found another kernel still unfinished on their
stream, and the most they found; with --first=N, also how many each of the first N
launches found."""
import re
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--first=")]
first = [int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--first=")]
behind = [int(m.group(1)) for line in open(args[0])
          if (m := re.match(r"launch \S+ grid \d+ block \d+ behind (\d+)$", line.strip()))]
print(f"launches {len(behind)}, behind another: {sum(b > 0 for b in behind)}, "
      f"most behind: {max(behind, default=0)}")
if first:
    print("first launches behind:", " ".join(str(b) for b in behind[:first[0]]))
