"""Human review in Label Studio: the labeling config vak ships, task export, and the import of reviewers'
corrections into the corrections store (core.corrections), which tag_upload applies on every run."""
