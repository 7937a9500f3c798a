"""Writing output files: atomically, keeping permissions, following links, FIFOs and devices
written directly (``files``)."""
