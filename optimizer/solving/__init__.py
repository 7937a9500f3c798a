"""Solving: solver plumbing (HiGHS or CBC, typed statuses), the greedy placement and the priced
start the search begins from, and the model written out as a file."""
