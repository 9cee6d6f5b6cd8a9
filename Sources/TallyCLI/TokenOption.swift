import ArgumentParser

/// `--token`, declared once for the commands that call as a person: an access token to send
/// instead of the login `tally login` stored, which those commands refresh as it expires.
struct TokenOption: ParsableArguments {
    @Option(
        name: .customLong("token"),
        help: EnvironmentDefaults.token.help("Access token to send, instead of the login tally login stored (which is refreshed as it expires)."))
    var flag: String?

    /// The flag, else `TALLY_TOKEN`; nil to use the stored login.
    var token: String? { flag ?? EnvironmentDefaults.token.value }
}
