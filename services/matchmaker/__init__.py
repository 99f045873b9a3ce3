"""The matchmaker: tickets, pools, match formation and ratings, as N replicas sharing Redis."""
