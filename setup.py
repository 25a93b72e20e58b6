"""pip install . : builds the chorus Python module (the CMake target chorus_python) and installs the package.

Offline on Debian: pybind11 (pybind11-dev), python3-dev and the C++ build dependencies come from apt
(scripts/install-deps.sh); `pip install --no-build-isolation --no-index .` needs nothing else. See docs/python.md.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def check_wheel_support():
    """pip builds a wheel even for `pip install .`; setuptools before 70.1 needs the separate `wheel` package for
    that. Without it setuptools only says "invalid command 'bdist_wheel'"; say what is missing instead."""
    if "bdist_wheel" not in sys.argv and "dist_info" not in sys.argv:
        return
    try:
        import wheel  # noqa: F401  (setuptools >= 70.1 has its own bdist_wheel)
    except ImportError:
        major, minor = (int(x) for x in re.findall(r"\d+", __import__("setuptools").__version__)[:2])
        if (major, minor) < (70, 1):
            sys.exit(f"chorus: building needs the 'wheel' package for {sys.executable} (setuptools "
                     f"{major}.{minor} has no bdist_wheel of its own). On Debian, python3-wheel provides it for "
                     "/usr/bin/python3: make the venv with `/usr/bin/python3 -m venv --system-site-packages` "
                     "(docs/python.md).")


def project_version():
    """The version in CMakeLists.txt's project() line, so Python and C++ report the same one."""
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(chorus VERSION ([0-9.]+)", text).group(1)


class CMakeExtension(Extension):
    """An extension that CMake builds; setuptools only knows its name."""

    def __init__(self, name):
        super().__init__(name, sources=[])


def cached_python(build_dir):
    """The Python3_EXECUTABLE a CMake build directory was configured with, or None."""
    cache = build_dir / "CMakeCache.txt"
    if not cache.exists():
        return None
    match = re.search(r"^Python3_EXECUTABLE:[A-Z]*=(.*)$", cache.read_text(errors="replace"), re.MULTILINE)
    return match.group(1).strip() if match else None


def same_python(executable):
    """Whether `executable` is a Python of this one's version (an extension built for it loads here)."""
    try:
        out = subprocess.run([executable, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return False
    return out == str(sys.version_info[:2])


def reusable_build_dir():
    """The README's build/ (scripts/build.sh) when it was configured for a Python of this version: the library is
    then not compiled a second time."""
    build = ROOT / "build"
    python = cached_python(build)
    return build if python and same_python(python) else None


class CMakeBuild(build_ext):
    """Configures the repository with CMake (no tests, no benchmarks) and builds only the module target."""

    def build_extension(self, ext):
        target_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        # CHORUS_BUILD_DIR, else the README's build/ when it suits this Python: reuse an existing CMake build
        # directory instead of a fresh one under build_temp, so the library is not compiled twice.
        reused = os.environ.get("CHORUS_BUILD_DIR") or reusable_build_dir()
        build_dir = Path(reused or Path(self.build_temp) / "cmake").resolve()
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                     "-DCHORUS_BUILD_PYTHON=ON", "-DCHORUS_BUILD_TESTS=OFF", "-DCHORUS_BUILD_BENCH=OFF",
                     "-DCHORUS_SIMGRID_CROSSCHECK=OFF", f"-DPython3_EXECUTABLE={sys.executable}"]
        if subprocess.run(["ninja", "--version"], capture_output=True).returncode == 0:
            configure += ["-G", "Ninja"]
        if not (build_dir / "CMakeCache.txt").exists():
            subprocess.run(configure, check=True)
        else:  # a reused build directory keeps its own configuration; only the module is switched on
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCHORUS_BUILD_PYTHON=ON"], check=True,
                           stdout=subprocess.DEVNULL)
            print(f"chorus: reusing the CMake build in {build_dir}", flush=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "chorus_python", "--parallel", jobs],
                       check=True)
        built = next((build_dir / "python" / "chorus").glob("_chorus*.so"))
        target_dir.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(target_dir / built.name))
        # The plugins (ns-3's packet model, MPI, GLPK; built with the module), loaded from beside _chorus*.so.
        for plugin in build_dir.glob("libchorus_*.so"):
            self.copy_file(str(plugin), str(target_dir / plugin.name))


check_wheel_support()
setup(
    name="chorus",
    version=project_version(),
    description="Collective communication and distributed ML training simulation (Python bindings)",
    packages=["chorus"],
    package_dir={"": "python"},
    package_data={"chorus": ["*.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("chorus._chorus")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
