package org.ntk4j;

/**
 * A mistake in what the user asked for or gave us (a file, a field, a value): the CLI prints its
 * message as one line and exits with status 2, never a stack trace. The message must name the
 * file, field or value and say what was expected.
 */
public class UserException extends RuntimeException {
    public UserException(String message) {
        super(message);
    }

    public UserException(String message, Throwable cause) {
        super(message, cause);
    }
}
