"""The optional compiled module (native_host/pipeline/tree_walk.pyx); everything else is in pyproject.toml.

Without Cython or a C compiler the package installs as pure Python and runs the Python walk, the reference
(docs/performance.md). A built module is used only with the selectolax release it names."""

from setuptools import setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """A build that fails (no compiler) leaves the pure-Python package, and says so."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any failure here means "no compiled module", never "no install"
            print(f"pith: compiled tree walk not built ({exc}); the Python walk will be used")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            print(f"pith: compiled tree walk not built ({exc}); the Python walk will be used")


def extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("pith: Cython not found; the Python walk will be used")
        return []
    from setuptools import Extension
    return cythonize([Extension("native_host.pipeline.tree_walk", ["native_host/pipeline/tree_walk.pyx"])],
                     language_level=3, quiet=True)


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
