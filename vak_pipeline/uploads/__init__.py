"""The upload model every stage reads: upload.yaml and its overrides, the inventory, ids and names, limits, links."""
