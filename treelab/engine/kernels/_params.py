"""Layout of the growth kernel's integer parameter vector and the codes it shares with the
test-selection (``_select``) and the estimators."""

# layout of the integer parameter vector
P_CRITERION = 0
P_C45 = 1
P_MIN_OBJS = 2
P_MIN_SPLIT = 3
P_MIN_LEAF = 4
P_MAX_DEPTH = 5
P_MAX_FEATURES = 6
P_DET_THRESHOLD = 7  # 0: best exact threshold, 1: one uniform random threshold (Extra-Trees)
P_RANDOM_SPLIT = 8  # 0: pair_midpoint, 1: uniform, 2: pert
P_STOCHASTIC = 9  # 0: off; 1 + _stochastic.mode_bits (the reading): stochastic ID3 selection
P_BETA_BITS = 10  # stochastic ID3's beta as float64 bits (_stochastic.beta_to_bits)
P_PRESORT = 11  # 1: presorted lists where they pay off (module _presort), 0: sort at every
#                  node, 2: presorted lists at every node of deterministic trees (no node sorts)
P_LOCAL = 12  # 1: grow small subtrees from local copies of their rows' values (see grow_tree)
P_BINNED = 13  # 1: ranks of continuous features are bin codes (max_bins); thresholds are the
#                 bins' upper edges, held in ``uniq`` (engine.forest.bin_feature)
P_KEEP_TIES = 14  # 1: an all-deterministic tree returns each node's ties (a reference tree,
#                    engine.forest.reference_arrays); 0: it returns empty arrays
P_COUNT_SHIFT = 15  # k: row multiplicities count 2**-k of a sample-weight unit (fractional
#                     sample weights scaled to integers); 0 for integer weights
N_PARAMS = 16

RS_PAIR = 0
RS_UNIFORM = 1
RS_PERT = 2
RS_PAIR_DISTINCT = 3  # midpoint of two distinct values drawn uniformly over the node's values

ROWS_ALL = 0
ROWS_BOOTSTRAP = 1
ROWS_DISJOINT = 2
ROWS_WEIGHTS = 3  # multiplicities given in ``part`` (learners that draw their own rows)

KIND_LEAF = 0
KIND_THRESHOLD = 1
KIND_NOMINAL = 2
