"""Consolidation (seed 002): facts become observations with a history (facts.py, every 30
seconds), and once a day the temporal pass (temporal.py), the merge of near-duplicate
observations (merge.py) and the dreams (dreams.py), run one member at a time (passes.py).
store.py writes observations, runs.py records each pass, context.py puts observations into a
reply's context, sql.py holds the raw SQL, prompts.py what the model is asked."""
