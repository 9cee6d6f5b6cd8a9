/// JSON values are in every envelope, reply and event, so whoever speaks the protocol speaks
/// TallyJSON: importing TallyProtocol imports it.
@_exported import TallyJSON
