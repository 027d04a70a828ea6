package match

// FoldVersion names the fold's rules as this build implements them. Each
// stored summary carries the version that wrote it, and a daemon re-folds
// in the background the summaries another version wrote: bump it with any
// change that can give a different summary for the same events.
const FoldVersion = 1
