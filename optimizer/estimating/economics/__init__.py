"""The catalog's economics in one home: on-demand rates, commitment products, and the one-off
costs of porting, migrating and switching, for every stage that prices anything."""
