import TallyCLI

// The command tree lives in TallyCLI so tests and tools can reach it; this only marks the entry point.
@main
extension TallyCommand {}
