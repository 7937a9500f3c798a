"""placement: cost-optimal placement of ML workloads on Trainium2 and H100."""
