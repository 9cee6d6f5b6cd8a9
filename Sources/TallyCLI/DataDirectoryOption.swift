import ArgumentParser

/// `--data-dir`, declared once for every command that reads or writes Tally's data directory:
/// the stateful services' SQLite files (notifier.sqlite among them), and the keys/ and curve/
/// directories; `TALLY_DATA_DIR` is its fallback.
struct DataDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: EnvironmentDefaults.dataDirectory.help("""
            The data directory: the stateful services' SQLite files (notifier.sqlite among them) and the default \
            keys/ and curve/ directories.
            """))
    var path: String = EnvironmentDefaults.dataDirectory.value
}
