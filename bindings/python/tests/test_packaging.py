"""What the installed distributions carry: the root LICENSE and an SPDX license expression (PEP 639)."""

import importlib.metadata
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
LANGCHAIN = ROOT / "bindings" / "python" / "langchain"


@pytest.mark.parametrize("dist", ["curbi", "curbi-langchain"])
def test_installed_distribution_carries_the_license(dist):
    meta = importlib.metadata.metadata(dist)
    assert meta["License-Expression"] == "Apache-2.0"
    # The old free-text field is what setuptools warns about; an SPDX expression replaces it.
    assert meta.get("License") is None
    files = [f for f in importlib.metadata.files(dist) if f.name == "LICENSE"]
    assert len(files) == 1, files
    assert files[0].locate().read_bytes() == (ROOT / "LICENSE").read_bytes()


def test_guard_package_builds_without_warnings(tmp_path):
    # `pip wheel` builds in an isolated environment with the setuptools pyproject.toml asks for; the license table
    # it used to hold printed screens of SetuptoolsDeprecationWarning.
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "--wheel-dir", str(tmp_path), str(LANGCHAIN)],
        capture_output=True,
        text=True,
        check=True,
    )
    text = out.stdout + out.stderr
    # The build backend's warnings only (pip's own, of whatever version the venv has, are not the package's).
    assert re.search(r"SetuptoolsDeprecationWarning|BackendWarning|`project\.license`", text) is None, text
    assert list(tmp_path.glob("curbi_langchain-*.whl"))
