//! cc-graph: the call graph (issue 3). Nothing here yet.
