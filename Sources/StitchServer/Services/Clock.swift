import Foundation
import ServerCommon
import Vapor

/// The server's idea of "now" (`ServerClock`, shared with Selene), and the clock a test moves by hand.
public typealias AppClock = ServerClock
public typealias TestClock = ManualClock

import StitchCore
