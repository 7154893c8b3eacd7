# -*- Python -*-
# lit configuration for oriopt's file tests. Loaded by the lit.site.cfg.py that CMake writes into
# <build>/tests/filetests; run lit on that directory, not on this one.
#
# Substitutions: %oriopt (the built tool), %corpus (shared corpus), %examples (examples/),
# %python (the Python running lit),
# %ptxas / %nvcc (when installed; guard with REQUIRES: ptxas / nvcc).
# PATH starts with the oriopt bin dir and LLVM's tools (FileCheck, not, count).
import os
import sys

import lit.formats

if not hasattr(config, "oriopt_bin_dir"):
    lit_config.fatal("run lit on the build tree (<build>/tests/filetests), where CMake wrote "
                     "lit.site.cfg.py, not on the source tree")

config.name = "oriopt"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ori", ".ptx", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "lit.site.cfg.py.in", "Inputs"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.oriopt_obj_root

config.environment["PATH"] = os.pathsep.join(
    [config.oriopt_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
for var in ("RC_PARAMS", "ORIOPT_SOURCE_DIR", "ORIOPT_BIN_DIR", "ORIOPT_CORPUS_DIR", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%oriopt", os.path.join(config.oriopt_bin_dir, "oriopt")))
config.substitutions.append(("%corpus", config.corpus_dir))
config.substitutions.append(("%examples", config.examples_dir))
config.substitutions.append(("%python", sys.executable))

for tool in ("ptxas", "nvcc", "dot"):
    path = getattr(config, tool, "")
    if path:
        config.available_features.add(tool)
        config.substitutions.append(("%" + tool, path))

if config.sanitize:
    config.available_features.add("sanitizers")
if os.path.isdir(config.corpus_dir):
    config.available_features.add("corpus")
