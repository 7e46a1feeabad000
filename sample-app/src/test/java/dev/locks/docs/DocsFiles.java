package dev.locks.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The user documentation as files of the repository: README.md and every page under docs/, read from the
 * clone the tests run in (Maven runs them in the module's folder, one below the root), and the README.md of
 * a module that has one. The helpers' docs/pending-*.md drafts are not pages yet, and are left out.
 */
final class DocsFiles {

    private DocsFiles() {
    }

    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))
                    && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("no folder above " + Path.of("").toAbsolutePath()
                + " holds README.md, docs/ and pom.xml");
    }

    /** README.md, the modules' README.md and docs/**.md, except the pending drafts. */
    static List<Path> pages() {
        Path root = root();
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> modules = Files.list(root)) {
            modules.map(module -> module.resolve("README.md")).filter(Files::isRegularFile).sorted()
                    .forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Stream<Path> files = Files.walk(root.resolve("docs"))) {
            files.filter(file -> file.getFileName().toString().endsWith(".md"))
                    .filter(file -> !file.getFileName().toString().startsWith("pending-"))
                    .sorted()
                    .forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String relative(Path file) {
        return root().relativize(file).toString();
    }

    /** A fence line (```, ~~~, possibly indented inside a list item), or null. */
    static String fence(String line) {
        String trimmed = line.stripLeading();
        if (trimmed.startsWith("```")) {
            return "```";
        }
        if (trimmed.startsWith("~~~")) {
            return "~~~";
        }
        return null;
    }
}
