# -*- Python -*-
# lit configuration for fw: compiler tests (FileCheck) and end-to-end tests
# that compile with fwc, run with fw-run and compare against numpy.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "fw"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fw_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# The runtime's settings reach fw-run, so the whole suite can be rerun under another
# scheduling policy, worker count or tier limit (and scripts/memcheck-fw-run.sh its).
for var in ("FW_SCHED", "FW_NUM_WORKERS", "FW_DEVICES", "FW_TIER_LIMITS", "FW_HOST_MEMORY",
            "FW_PREFETCH", "FW_PREFETCH_WINDOW", "FW_PREFETCH_THREADS", "FW_GPU_PIPELINE",
            "FW_STORAGE_DIR", "FW_MEMCHECK_FW_RUN", "FW_MEMCHECK_REPORTS", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# FW_TEST_GPU_DRIVER_PATH: directories (a PATH-style list) holding GPU driver libraries
# the tests use first: the stand-ins of runtime/test/fake_cuda.c (libcuda.so.1) and
# fake_hip.c (libamdhip64.so.6), to run the suite through the runtime's GPU paths on a
# machine without a GPU.
if os.environ.get("FW_TEST_GPU_DRIVER_PATH"):
    config.environment["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (os.environ["FW_TEST_GPU_DRIVER_PATH"], os.environ.get("LD_LIBRARY_PATH"))
        if p)

config.substitutions.append(("%fw-opt", os.path.join(config.fw_tools_dir, "fw-opt")))
config.substitutions.append(("%fw-run", os.path.join(config.fw_run_dir, "fw-run")))
config.substitutions.append(("%fwc", os.path.join(config.fw_tools_dir, "fwc")))
# fw-run on the ThreadSanitizer build of the runtime, where the compiler supports it.
if config.fw_run_tsan and os.path.exists(config.fw_run_tsan):
    config.available_features.add("fw-run-tsan")
    config.substitutions.append(("%fw-run-tsan", config.fw_run_tsan))
config.substitutions.append(("%fw-device-check", os.path.join(config.fw_tools_dir, "fw-device-check")))
config.substitutions.append(("%fake-cuda-dir", config.fw_fake_cuda_dir))
config.substitutions.append(("%fake-hip-dir", config.fw_fake_hip_dir))
config.substitutions.append(("%python", config.python_with_numpy))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%runtime-cflags", "-I" + config.fw_runtime_include))
config.substitutions.append(("%runtime-lib", config.fw_runtime_library + " -ldl -lm"))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(config.test_source_root), "examples")))

# valgrind's memory checker: a leaked block or an invalid access fails the run (exit 99).
import shutil
if shutil.which("valgrind"):
    config.available_features.add("valgrind")
    config.substitutions.append((
        "%valgrind", "valgrind --leak-check=full --errors-for-leak-kinds=definite "
        "--error-exitcode=99"))

llvm_config.add_tool_substitutions(["FileCheck", "not", "count", "split-file"],
                                   [config.llvm_tools_dir])

# Tests of x86-64-v4 (AVX-512) kernels run only where the CPU can execute them (and
# not with --param avx512=0: under valgrind, whose CPU has no AVX-512).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = cpuinfo.read()
    if all(f in flags.split() for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq")) \
            and lit_config.params.get("avx512", "1") != "0":
        config.available_features.add("avx512")
except OSError:
    pass

# NVIDIA code generation assembles cubins with CUDA's ptxas; CUDA's stub libcuda (whose
# entry points exist but fail) checks that the runtime finds every driver function.
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
if os.path.exists("/usr/local/cuda/lib64/stubs/libcuda.so"):
    config.available_features.add("cuda-stub")
# AMD code objects need the device libraries of Debian's rocm-device-libs and LLVM's
# ld.lld; Debian's HIP headers let the runtime's HIP device be checked against them.
if os.path.isdir("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode") and os.path.exists(
        os.path.join(config.llvm_tools_dir, "ld.lld")):
    config.available_features.add("amdgpu-toolchain")
