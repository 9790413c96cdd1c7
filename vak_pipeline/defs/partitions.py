"""One dynamic partition per upload folder under data/raw/ (DESIGN.md §2)."""

import dagster as dg

uploads_partitions = dg.DynamicPartitionsDefinition(name="uploads")
