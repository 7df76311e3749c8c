"""README.md's "From Python" code, run as written."""

import re

from conftest import source_dir


def test_readme_python_block_runs(capsys):
    readme = (source_dir() / "README.md").read_text()
    section = readme.split("## From Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "README.md's From Python section has no python block"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("sum/eigen/f32/4096 ")
    assert printed[1].endswith(" True")
