"""Packaging glue that pyproject.toml cannot say: the worked examples in `saves/` are
shipped inside the package as `tracker/examples/`, so a tool install (pipx, uv tool)
can copy them into the user's saves folder. A clone keeps them where they are."""

from pathlib import Path
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithExamples(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads saves/ in the clone (tracker.paths.examples_dir)
        target = Path(self.build_lib) / "tracker" / "examples"
        target.mkdir(parents=True, exist_ok=True)
        for source in sorted(Path(__file__).resolve().parent.joinpath("saves").glob("*.toml")):
            shutil.copyfile(source, target / source.name)


setup(cmdclass={"build_py": BuildWithExamples})
