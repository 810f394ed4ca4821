"""Small named inputs reused across the notebooks (one home for each toy example).

The article's worked example: three already-scaled scores for one query and three
two-dimensional value vectors, one per key.
"""
import numpy as np

#: Scores of one query against three keys, already scaled. Shape (3,).
ARTICLE_SCORES = np.array([2.0, 1.0, 0.0])

#: One value vector per key. Shape (3, 2): T = 3 keys, d_v = 2.
ARTICLE_VALUES = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])

#: Labels for the three keys in plots.
ARTICLE_TOKENS = ("token 1", "token 2", "token 3")
