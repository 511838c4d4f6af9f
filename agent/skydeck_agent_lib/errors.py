"""The one error type every command raises; it maps 1:1 onto the error object on the wire."""


class AgentError(Exception):
    """code is a stable machine-readable token (see README.md), message is for humans."""

    def __init__(self, code, message, details=None):
        Exception.__init__(self, message)
        self.code = code
        self.message = message
        self.details = details

    def to_wire(self):
        err = {'code': self.code, 'message': self.message}
        if self.details is not None:
            err['details'] = self.details
        return err


def bad_args(message):
    return AgentError('invalid_argument', message)
