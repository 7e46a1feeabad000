package dev.locks.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every Java and Kotlin block of README.md and docs/ is either a region of a source file that the build
 * compiles, marked {@code <!-- include: path#name -->} on the line before the block and delimited in the
 * source by {@code // tag::name[]} and {@code // end::name[]}, which this test compares with the block; or
 * marked {@code <!-- fragment: why -->} (an API listing, a sketch of the reader's own classes). An unmarked
 * block fails, so an example cannot rot unnoticed. On a difference the test prints the region as it should
 * stand in the page.
 */
class DocsExamplesTests {

    private static final Pattern OPENING = Pattern.compile("^(\\s*)```\\s*(\\w+).*$");
    private static final Pattern INCLUDE = Pattern.compile("^\\s*<!-- include: (\\S+)#(\\S+) -->\\s*$");
    private static final Pattern FRAGMENT = Pattern.compile("^\\s*<!-- fragment: .+ -->\\s*$");

    @Test
    void everyJavaAndKotlinBlockShouldBeACompiledSourceRegionOrAMarkedFragment() {
        List<String> problems = new ArrayList<>();
        int included = 0;
        int fragments = 0;
        for (Path page : DocsFiles.pages()) {
            List<String> lines = DocsFiles.lines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher opening = OPENING.matcher(lines.get(i));
                if (!opening.matches()) {
                    if (DocsFiles.fence(lines.get(i)) != null) {
                        i = closing(lines, i);   // a block of another language, or a bare fence
                    }
                    continue;
                }
                int end = closing(lines, i);
                String language = opening.group(2);
                String where = DocsFiles.relative(page) + ":" + (i + 1);
                if (!language.equals("java") && !language.equals("kotlin")) {
                    i = end;
                    continue;
                }
                String marker = previousLine(lines, i);
                Matcher include = INCLUDE.matcher(marker);
                if (include.matches()) {
                    included++;
                    String expected = region(include.group(1), include.group(2), problems, where);
                    String actual = dedent(lines.subList(i + 1, end));
                    if (expected != null && !expected.equals(actual)) {
                        problems.add(where + ": the block differs from " + include.group(1) + "#" + include.group(2)
                                + "; it should read:\n" + expected);
                    }
                } else if (FRAGMENT.matcher(marker).matches()) {
                    fragments++;
                } else {
                    problems.add(where + ": a " + language + " block with neither '<!-- include: path#name -->' nor"
                            + " '<!-- fragment: why -->' on the line before it");
                }
                i = end;
            }
        }
        System.out.println("docs examples: " + included + " blocks compared with compiled sources, " + fragments
                + " marked fragments");
        problems.forEach(problem -> System.out.println(problem + "\n"));
        assertThat(problems).as("docs examples (each printed above)").isEmpty();
        assertThat(included).as("blocks compared with compiled sources").isGreaterThan(fragments);
    }

    @Test
    void regionShouldLeaveOutOtherTagsAndTheCommonIndent() {
        assertThat(dedent(List.of("    a", "      b", "", "    c"))).isEqualTo("a\n  b\n\nc");
        assertThat(regionOf(List.of("x", "  // tag::one[]", "  a", "  // tag::two[]", "  b", "  // end::two[]",
                "  // end::one[]"), "one")).isEqualTo("a\nb");
    }

    private static int closing(List<String> lines, int opening) {
        for (int j = opening + 1; j < lines.size(); j++) {
            if (DocsFiles.fence(lines.get(j)) != null && lines.get(j).strip().matches("```|~~~")) {
                return j;
            }
        }
        throw new IllegalStateException("a code block opened at line " + (opening + 1) + " never closes");
    }

    private static String previousLine(List<String> lines, int index) {
        for (int j = index - 1; j >= 0; j--) {
            if (!lines.get(j).isBlank()) {
                return lines.get(j);
            }
        }
        return "";
    }

    private static String region(String path, String tag, List<String> problems, String where) {
        Path source = DocsFiles.root().resolve(path);
        if (!Files.isRegularFile(source)) {
            problems.add(where + ": no source file " + path);
            return null;
        }
        String region = regionOf(DocsFiles.lines(source), tag);
        if (region == null) {
            problems.add(where + ": no region '// tag::" + tag + "[]' ... '// end::" + tag + "[]' in " + path);
        }
        return region;
    }

    static String regionOf(List<String> source, String tag) {
        int begin = -1;
        for (int i = 0; i < source.size(); i++) {
            String line = source.get(i).strip();
            if (line.equals("// tag::" + tag + "[]")) {
                begin = i;
            } else if (line.equals("// end::" + tag + "[]") && begin >= 0) {
                List<String> body = new ArrayList<>();
                for (String kept : source.subList(begin + 1, i)) {
                    if (!kept.strip().matches("// (tag|end)::\\S+\\[\\]")) {
                        body.add(kept);
                    }
                }
                return dedent(body);
            }
        }
        return null;
    }

    static String dedent(List<String> lines) {
        int indent = lines.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            out.add(line.isBlank() ? "" : line.substring(indent).stripTrailing());
        }
        while (!out.isEmpty() && out.get(0).isEmpty()) {
            out.remove(0);
        }
        while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
            out.remove(out.size() - 1);
        }
        return String.join("\n", out);
    }
}
