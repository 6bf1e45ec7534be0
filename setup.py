"""The optional compiled modules (native_host/pipeline/*.pyx); everything else is in pyproject.toml.

Without Cython or a C compiler the package installs as pure Python and runs the Python code, the reference
(docs/performance.md). A built module is used only where it gives the reference's answer on its probe
(native_host/pipeline/compiled.py)."""

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The pipeline's compiled modules, each beside the Python module it speeds up (its reference).
COMPILED = ("tree_walk", "feature_core", "segment", "validate_core")


class OptionalBuildExt(build_ext):
    """A build that fails (no compiler) leaves the pure-Python package, and says so."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any failure here means "no compiled module", never "no install"
            print(f"pith: compiled modules not built ({exc}); the Python code will be used")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            print(f"pith: {ext.name} not built ({exc}); its Python reference will be used")


def extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("pith: Cython not found; the Python code will be used")
        return []
    from setuptools import Extension

    return cythonize(
        [Extension(f"native_host.pipeline.{name}", [f"native_host/pipeline/{name}.pyx"]) for name in COMPILED],
        language_level=3,
        quiet=True,
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
