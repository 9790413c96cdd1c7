"""Human review in Label Studio: the labeling config vak ships, task export, the import of reviewers'
corrections into the corrections store (core.corrections), which tag_upload applies on every run, and the
REST client that talks to a server (label_studio.py)."""
