"""The collapse testbed's design runs: committed data, no driver."""

DATA_ONLY = "its design runs are committed under results/collapse/; no driver trains them now"
