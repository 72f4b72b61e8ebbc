"""Tests of the numberdrop_env package, one folder per subpackage."""
