# Sourced by the build scripts: sets CHORUS_LAUNCHER_ARGS to cmake options that compile through ccache when it is
# installed (a rebuild after a small change, or after build/ was deleted, then reuses the unchanged objects).
# Nothing depends on it: without ccache the options are empty. CHORUS_NO_CCACHE=1 turns it off.
CHORUS_LAUNCHER_ARGS=()
if [[ -z ${CHORUS_NO_CCACHE:-} ]] && command -v ccache >/dev/null 2>&1; then
  # The program, the tests and the bindings use precompiled headers (CMakeLists.txt): ccache caches those files
  # only when told that the header's macros and time stamps may be ignored.
  CHORUS_LAUNCHER_ARGS=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache"
    -DCMAKE_C_COMPILER_LAUNCHER=ccache)
else
  CHORUS_LAUNCHER_ARGS=(-UCMAKE_CXX_COMPILER_LAUNCHER -UCMAKE_C_COMPILER_LAUNCHER)
fi
