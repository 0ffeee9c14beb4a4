"""Refuses a folder name that would not work as a distribution name, before anything is written."""

import re
import sys

SLUG = "{{ cookiecutter.project_slug }}"
FAMILIES = ["{{ cookiecutter.include_cnn }}", "{{ cookiecutter.include_lstm }}", "{{ cookiecutter.include_gcn }}"]

if __name__ == "__main__":
    if not re.fullmatch(r"[a-z][a-z0-9_]*", SLUG):
        sys.exit(f"project_slug {SLUG!r}: use lowercase letters, digits and underscores, starting with a letter")
    if "yes" not in FAMILIES:
        sys.exit("include at least one model family (include_cnn, include_lstm or include_gcn)")
