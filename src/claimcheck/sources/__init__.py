"""Where sources come from and where they are kept: resolve, fetch, history, store, state, lock."""
