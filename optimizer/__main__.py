"""``python -m optimizer`` runs the ``placement`` command line."""

from optimizer.cli import main

main()
