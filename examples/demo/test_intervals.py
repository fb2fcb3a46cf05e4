"""Tests of intervals.py (unittest style, so pytest and `python -m unittest` both run them)."""

import unittest

from intervals import merge_intervals, total_length


class MergeIntervalsTest(unittest.TestCase):
    def test_disjoint_intervals_stay_apart(self) -> None:
        self.assertEqual(merge_intervals([(5, 6), (1, 2)]), [(1, 2), (5, 6)])

    def test_overlapping_intervals_merge(self) -> None:
        self.assertEqual(merge_intervals([(1, 4), (2, 6), (8, 9)]), [(1, 6), (8, 9)])

    def test_touching_intervals_merge(self) -> None:
        self.assertEqual(merge_intervals([(1, 3), (3, 5)]), [(1, 5)])

    def test_nested_interval_is_absorbed(self) -> None:
        self.assertEqual(merge_intervals([(1, 10), (2, 3)]), [(1, 10)])

    def test_reversed_interval_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            merge_intervals([(3, 1)])

    def test_total_length_counts_shared_points_once(self) -> None:
        self.assertEqual(total_length([(0, 2), (2, 4)]), 4)


if __name__ == "__main__":
    unittest.main()
