# Sourced by the build scripts: sets CHORUS_LAUNCHER_ARGS to cmake options that compile through ccache when it is
# installed (a rebuild after a small change, or after build/ was deleted, then reuses the unchanged objects).
# Nothing depends on it: without ccache the options are empty. CHORUS_NO_CCACHE=1 turns it off.
CHORUS_LAUNCHER_ARGS=()
if [[ -z ${CHORUS_NO_CCACHE:-} ]] && command -v ccache >/dev/null 2>&1; then
  CHORUS_LAUNCHER_ARGS=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
else
  CHORUS_LAUNCHER_ARGS=(-UCMAKE_CXX_COMPILER_LAUNCHER -UCMAKE_C_COMPILER_LAUNCHER)
fi
