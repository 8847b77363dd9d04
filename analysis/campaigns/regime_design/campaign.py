"""The regime suites' design runs: committed data, no driver."""

DATA_ONLY = "its design runs are committed under results/regime/; no driver trains them now"
