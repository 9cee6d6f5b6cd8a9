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
}
