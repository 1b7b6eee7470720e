"""Debian's Chromium for the end-to-end tests (installed by .ci/run), with the flags this machine needs:
headless, no sandbox as root, and no background networking (the closed network refuses it)."""

import shutil

import pytest

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def chromium():
    """The path of Chromium; fails the test when it is not installed."""
    for name in ["chromium", "chromium-browser", "google-chrome"]:
        if shutil.which(name):
            return shutil.which(name)
    pytest.fail("Chromium is not installed (.ci/run installs Debian's chromium)")
