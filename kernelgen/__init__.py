"""Random pypto kernels in the idioms of each era, and the differential run that judges the tool on them (see docs/fuzz.md)."""
