"""Statistics over a dataset: Polars queries that take and return lazy frames."""
