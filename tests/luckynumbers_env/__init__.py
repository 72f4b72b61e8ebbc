"""Tests of the luckynumbers_env package, one folder per subpackage."""
