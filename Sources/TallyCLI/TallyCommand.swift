import ArgumentParser

/// `tally`: every process of a Tally deployment, and the client for calling it.
public struct TallyCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "tally",
        abstract: "Tally: money-and-schedule services behind a ZeroMQ gateway.",
        discussion: """
            Run the whole stack on one machine with `tally up`, then call it:
              tally call calc.tip '{"amount":"84.00","tip_percent":"18","split":3,"currency":"USD"}'
            In production run `tally gateway` (one or more), `tally notifier`, and `tally worker <service>` as often \
            as needed: ops/README.md.
            """,
        subcommands: [
            UpCommand.self, GatewayCommand.self, WorkerCommand.self, CallCommand.self, DescribeCommand.self, LoginCommand.self, LogoutCommand.self,
            CurrencyCommand.self, NotifierCommand.self, WatchCommand.self, KeysCommand.self, IdentityCommand.self,
            BackupCommand.self, RestoreCommand.self, MigrateDataCommand.self, HealthCommand.self, StatusCommand.self,
        ]
    )

    public init() {}

    /// A variable set to what its setting cannot take is refused before any command runs, not
    /// read as the default: a typo in tally.env would otherwise go unnoticed. Except when help is
    /// asked for: this runs before the subcommand is parsed, and refusing here would show the
    /// top-level help in place of the subcommand's.
    public func validate() throws {
        let helpFlags: Set<String> = ["-h", "--help", "help", "--experimental-dump-help"]
        guard CommandLine.arguments.dropFirst().allSatisfy({ !helpFlags.contains($0) }) else { return }
        if let problem = EnvironmentDefaults.problems.first { throw ValidationError(problem) }
    }
}
