package dev.locks.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md and docs/ resolves: the file or folder exists, and an anchor names a
 * heading of the page it points to (by GitHub's rule for heading anchors). Links inside code blocks and code
 * spans are not links; links to other sites are not checked.
 */
class DocsLinksTests {

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkAndAnchorOfTheDocsShouldResolve() {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        int checked = 0;
        for (Path page : DocsFiles.pages()) {
            List<String> lines = DocsFiles.lines(page);
            String open = null;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                String fence = DocsFiles.fence(line);
                if (fence != null && (open == null || open.equals(fence))) {
                    open = open == null ? fence : null;
                    continue;
                }
                if (open != null) {
                    continue;
                }
                Matcher link = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                        continue;   // http:, https:, mailto:
                    }
                    checked++;
                    String problem = problem(page, target, anchors);
                    if (problem != null) {
                        broken.add(DocsFiles.relative(page) + ":" + (i + 1) + ": " + target + ": " + problem);
                    }
                }
            }
        }
        assertThat(checked).as("relative links found").isGreaterThan(50);
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void anchorsShouldFollowGitHubsRule() {
        assertThat(slug("Spring's `@Cacheable`")).isEqualTo("springs-cacheable");
        assertThat(slug("Actuator: endpoint, health, meters")).isEqualTo("actuator-endpoint-health-meters");
        assertThat(slug("JDBC backend (PostgreSQL)")).isEqualTo("jdbc-backend-postgresql");
        assertThat(slug("Local, one key: 1.95× the floor")).isEqualTo("local-one-key-195-the-floor");
    }

    private static String problem(Path page, String target, Map<Path, Set<String>> anchors) {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
        if (!Files.exists(file)) {
            return "no such file " + DocsFiles.relative(file);
        }
        if (anchor == null) {
            return null;
        }
        if (!file.getFileName().toString().endsWith(".md")) {
            return "an anchor into a file that is not a page";
        }
        Set<String> known = anchors.computeIfAbsent(file, DocsLinksTests::headings);
        return known.contains(anchor) ? null : "no heading '#" + anchor + "' in " + DocsFiles.relative(file);
    }

    /** The anchors of a page's headings, duplicates numbered as GitHub numbers them. */
    private static Set<String> headings(Path file) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        String open = null;
        for (String line : DocsFiles.lines(file)) {
            String fence = DocsFiles.fence(line);
            if (fence != null && (open == null || open.equals(fence))) {
                open = open == null ? fence : null;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (open == null && heading.matches()) {
                String slug = slug(heading.group(1));
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        return anchors;
    }

    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");   // a link's text only
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "")
                .replace(' ', '-');
    }
}
