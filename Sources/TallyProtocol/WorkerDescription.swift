import Foundation

/// What a worker of a service outside Tally's catalog may say about its commands, in a frame of
/// its READY after the service name (and the capacity, if any): `{"commands": [...]}`, each
/// command as `system.describe` shows it (`schemas/worker-description.json`). The gateway serves it
/// in `system.describe`; a broker that does not know the frame ignores it.
public struct WorkerDescription: Codable, Sendable, Equatable {
    public let commands: [DescribedCommand]

    public init(commands: [DescribedCommand]) {
        self.commands = commands
    }

    /// Reads and checks the frame a worker of `service` sent; the error says what is wrong, for
    /// the gateway's log.
    public static func decode(_ frame: Data, service: String) throws(TallyError) -> WorkerDescription {
        let description: WorkerDescription
        do {
            description = try TallyJSON.decode(WorkerDescription.self, from: frame)
        } catch {
            throw TallyError.invalidArgument("the READY's description is not {\"commands\": [...]} as schemas/worker-description.json says: \(error)")
        }
        var seen: Set<String> = []
        for command in description.commands {
            guard Envelope.isWellFormedCommand(command.name), Envelope.service(of: command.name) == service else {
                throw TallyError.invalidArgument("the READY's description names '\(command.name)', which is not a command of \(service) (\(service).<name>)")
            }
            guard seen.insert(command.name).inserted else {
                throw TallyError.invalidArgument("the READY's description names \(command.name) twice")
            }
            guard ["open", "user", "role"].contains(command.access), (command.access == "role") == (command.role != nil) else {
                throw TallyError.invalidArgument("\(command.name)'s access must be open, user, or role with a role")
            }
        }
        return description
    }
}
