"""``python -m placement`` runs the ``placement`` command line."""

from placement.cli.main import main

main()
