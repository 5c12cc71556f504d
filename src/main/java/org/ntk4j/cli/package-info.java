/**
 * Floor 12 of 12 (the top): the {@code ntk4j} command line ({@link org.ntk4j.cli.Main}). Each command parses its
 * options into the library's types, calls the library and prints; library messages name settings by key and the
 * command line spells them as options ({@code Flags}). The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.cli;
