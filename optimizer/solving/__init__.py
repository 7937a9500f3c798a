"""Solving: solver plumbing (HiGHS or CBC, typed statuses), and the greedy placement the search
starts from."""
