"""``python -m placement`` runs the ``placement`` command line."""

from placement.cli import main

main()
