#include "template/templateloader.h"
#include "template/templatepatcher.h"
#include "template/templatevalues.h"
#include "template/templatewriter.h"

#include "support/linediff.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <yaml-cpp/yaml.h>

#include <functional>

using namespace ClusterDeck;
using ClusterDeck::Test::diffLines;
using ClusterDeck::Test::LineDiff;

// A form edit, as the template editor makes it: one field of the loaded template changed.
using Mutation = std::function<void(ClusterTemplate &)>;
Q_DECLARE_METATYPE(Mutation)

class TestTemplatePatcher : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void oneField_data();
    void oneField();
    void severalFields_data();
    void severalFields();
    void rolesReshaped_data();
    void rolesReshaped();
    void scalarKeepsItsQuoting();
    void multiLineScriptBecomesBlockScalar();
    void multiLineValueWithoutBlockForm_data();
    void multiLineValueWithoutBlockForm();
    void aliasOfEditedAnchorKeepsItsValue();
    void aliasMovedBeforeItsAnchorCopiesIt();
    void unparsableOriginalIsAnError();

private:
    // Every standalone template the project ships: the samples and the docs' full example.
    QStringList templateFiles() const;

    QTemporaryDir m_dir;
};

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::optional<ClusterTemplate> load(const QByteArray &yaml, const QString &dir)
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"), dir);
    return t ? std::optional<ClusterTemplate>(*t) : std::nullopt;
}

int indentOf(const QByteArray &line)
{
    int n = 0;
    while (n < line.size() && line.at(n) == ' ')
        ++n;
    return n;
}

bool blankOrComment(const QByteArray &line)
{
    const QByteArray t = line.trimmed();
    return t.isEmpty() || t.startsWith('#');
}

// Where a field is written: the 0-based lines [first, last] of the deepest part of `path`
// ("roles[1].task.image") that the text has, from its key's line down to the last line indented
// deeper than that key; `missing` names the first key of the path that the text lacks.
struct FieldLines
{
    int first = -1;
    int last = -1;
    QString missing;
};

FieldLines fieldLines(const QByteArray &yaml, const QString &path)
{
    const QByteArrayList lines = yaml.split('\n');
    YAML::Node node = YAML::Load(yaml.toStdString());
    int line = -1, column = -1;
    static const QRegularExpression part(QStringLiteral(R"(([^.\[\]]+)|\[(\d+)\])"));
    for (auto it = part.globalMatch(path); it.hasNext();) {
        const auto m = it.next();
        const YAML::Node current = node;
        if (!m.captured(1).isEmpty()) {
            if (!current.IsMap())
                break;
            bool found = false;
            for (auto e = current.begin(); e != current.end(); ++e) {
                if (e->first.Scalar() == m.captured(1).toStdString()) {
                    line = int(e->first.Mark().line);
                    column = int(e->first.Mark().column);
                    node.reset(e->second);
                    found = true;
                }
            }
            if (!found) {
                FieldLines lines;
                lines.missing = m.captured(1);
                return lines;
            }
        } else {
            const std::size_t i = m.captured(2).toULongLong();
            if (!current.IsSequence() || i >= current.size())
                break;
            node.reset(current[i]);
            line = int(node.Mark().line);
            column = int(node.Mark().column) - 2; // the item's dash
        }
    }
    int last = line;
    for (int l = line + 1; l < lines.size(); ++l) {
        if (lines[l].trimmed().isEmpty())
            continue;
        if (indentOf(lines[l]) <= column)
            break;
        if (!blankOrComment(lines[l]))
            last = l;
    }
    return {line, last, {}};
}

// A template file with one form edit applied, and that edit patched into the file.
struct EditedFile
{
    QString dir;
    QByteArray original;
    ClusterTemplate loaded;
    ClusterTemplate edited;
    Result<QByteArray> patched;
};

// The same for YAML text (task files relative to `dir`).
std::optional<EditedFile> editText(const QByteArray &yaml, const QString &dir, const Mutation &edit)
{
    EditedFile f;
    f.dir = dir;
    f.original = yaml;
    const auto loaded = load(f.original, f.dir);
    if (!loaded)
        return std::nullopt;
    f.loaded = *loaded;
    f.edited = *loaded;
    edit(f.edited);
    f.patched = TemplatePatcher::patch(f.original, f.loaded, f.edited, f.dir);
    return f;
}

std::optional<EditedFile> editFile(const QString &file, const Mutation &edit)
{
    return editText(readAll(file), QFileInfo(file).path(), edit);
}

QString show(const QList<int> &lines)
{
    QStringList out;
    for (int l : lines)
        out.append(QString::number(l + 1));
    return out.join(u',');
}

bool isScript(const QStringList &command)
{
    return command.size() == 3 && command.at(0) == u"/bin/sh" && command.at(1) == u"-c";
}

} // namespace

void TestTemplatePatcher::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // The docs' full example refers to tasks/lab-web.yaml beside it, as the samples do.
    const QString source = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR");
    const QByteArray docs = readAll(source + QStringLiteral("/docs/templates.md"));
    const qsizetype start = docs.indexOf("```yaml\napiVersion: clusterdeck/v1\nkind: Cluster");
    QVERIFY(start >= 0);
    const qsizetype body = start + qsizetype(strlen("```yaml\n"));
    const QByteArray example = docs.mid(body, docs.indexOf("```", body) - body);
    QFile out(m_dir.filePath(QStringLiteral("docs-example.yaml")));
    QVERIFY(out.open(QIODevice::WriteOnly) && out.write(example) == example.size());
    out.close();
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("tasks")));
    const QDir tasks(source + QStringLiteral("/templates/tasks"));
    for (const QString &f : tasks.entryList(QDir::Files))
        QVERIFY(QFile::copy(tasks.filePath(f), m_dir.filePath(QStringLiteral("tasks/") + f)));
}

QStringList TestTemplatePatcher::templateFiles() const
{
    QStringList files;
    const QDir samples(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                       QStringLiteral("/templates"));
    for (const QString &f : samples.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name))
        files.append(samples.filePath(f));
    files.append(m_dir.filePath(QStringLiteral("docs-example.yaml")));
    return files;
}

// Every edit the form can make to `t`, one field each, by the path of the field.
static QList<std::pair<QString, Mutation>> fieldEdits(const ClusterTemplate &loaded)
{
    QList<std::pair<QString, Mutation>> edits;
    const ClusterTemplate *t = &loaded;
    {
        auto row = [&](const QString &field, Mutation edit) {
            edits.append({field, edit});
        };
        row(QStringLiteral("name"), [](ClusterTemplate &t) { t.name += QStringLiteral("-b"); });
        row(QStringLiteral("description"),
            [](ClusterTemplate &t) { t.description = QStringLiteral("an edited description"); });
        row(QStringLiteral("mode"), [](ClusterTemplate &t) {
            t.mode = t.mode == ClusterMode::Auto ? ClusterMode::MultiNode : ClusterMode::Auto;
        });
        row(QStringLiteral("failurePolicy"), [](ClusterTemplate &t) {
            t.failurePolicy.action = t.failurePolicy.action == FailurePolicy::Action::Ignore
                                         ? FailurePolicy::Action::TerminateSession
                                         : FailurePolicy::Action::Ignore;
        });
        row(QStringLiteral("successPolicy"), [](ClusterTemplate &t) {
            t.successPolicy.kind = t.successPolicy.kind == SuccessPolicy::Kind::AllExit
                                       ? SuccessPolicy::Kind::PrimaryExits
                                       : SuccessPolicy::Kind::AllExit;
        });
        if (t->successPolicy.kind != SuccessPolicy::Kind::None)
            row(QStringLiteral("ttlAfterFinished"),
                [](ClusterTemplate &t) { t.ttlAfterFinishedSeconds = 20 * 60; });
        row(QStringLiteral("startupOrder"), [](ClusterTemplate &t) {
            t.startupOrder = t.startupOrder == StartupOrder::Parallel ? StartupOrder::InOrder
                                                                      : StartupOrder::Parallel;
        });
        row(QStringLiteral("presets"), [](ClusterTemplate &t) {
            t.presets.append(t.presets.contains(u"tensorflow") ? QStringLiteral("pytorch")
                                                               : QStringLiteral("tensorflow"));
        });
        row(QStringLiteral("allowHostPaths"),
            [](ClusterTemplate &t) { t.allowHostPaths = !t.allowHostPaths; });

        for (int i = 0; i < t->roles.size(); ++i) {
            const QString role = QStringLiteral("roles[%1].").arg(i);
            auto roleRow = [&](const QString &field, std::function<void(RoleTemplate &)> edit) {
                row(role + field, [i, edit](ClusterTemplate &t) { edit(t.roles[i]); });
            };
            roleRow(QStringLiteral("name"), [](RoleTemplate &r) { r.name += QStringLiteral("x"); });
            roleRow(QStringLiteral("count"),
                    [](RoleTemplate &r) { r.count = r.count < r.max ? r.count + 1 : r.count - 1; });
            roleRow(QStringLiteral("min"), [](RoleTemplate &r) { r.min = r.min > 1 ? 1 : 2; });
            roleRow(QStringLiteral("max"), [](RoleTemplate &r) { r.max += 1; });
            // A task file's fields are not the cluster template's to write.
            if (!t->roles.at(i).taskFile.isEmpty())
                continue;
            roleRow(QStringLiteral("task.image"),
                    [](RoleTemplate &r) { r.task.image += QStringLiteral("-b"); });
            roleRow(QStringLiteral("task.command"), [](RoleTemplate &r) {
                if (isScript(r.task.command))
                    r.task.command[2] += QStringLiteral("echo edited\n");
                else
                    r.task.command.append(QStringLiteral("--edited"));
            });
            roleRow(QStringLiteral("task.resources.cpus"), [](RoleTemplate &r) {
                r.task.resources.cpus = r.task.resources.cpus.value_or(1) * 2;
            });
            roleRow(QStringLiteral("task.resources.memory"), [](RoleTemplate &r) {
                r.task.resources.memoryBytes = r.task.resources.memoryBytes.value_or(1 << 20) * 2;
            });
            roleRow(QStringLiteral("task.env"), [](RoleTemplate &r) {
                r.task.env.insert(QStringLiteral("EDITED"), QStringLiteral("yes"));
            });
            roleRow(QStringLiteral("task.ports"), [](RoleTemplate &r) {
                r.task.ports.append(
                    ServicePort{QStringLiteral("extra"), QStringLiteral("tcp"), 9999});
            });
            roleRow(QStringLiteral("task.mounts"), [](RoleTemplate &r) {
                r.task.mounts.append(
                    *TemplateValues::parseMountSpec(QStringLiteral("scratch:/scratch")));
            });
            roleRow(QStringLiteral("task.bootstrap"), [](RoleTemplate &r) {
                r.task.bootstrap = r.task.bootstrap.isEmpty()
                                       ? QStringLiteral("#!/bin/sh\necho ready\n")
                                       : r.task.bootstrap + QStringLiteral("echo ready\n");
            });
        }
    }
    return edits;
}

void TestTemplatePatcher::oneField_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("field"); // where the edit shows in the YAML
    QTest::addColumn<Mutation>("edit");

    const QStringList files = templateFiles();
    QVERIFY(files.size() >= 8);
    for (const QString &file : files) {
        const auto t = load(readAll(file), QFileInfo(file).path());
        QVERIFY2(t, qPrintable(file));
        const QString name = QFileInfo(file).completeBaseName();
        for (const auto &[field, edit] : fieldEdits(*t))
            QTest::newRow(qPrintable(name + u' ' + field)) << file << field << edit;
    }
}

void TestTemplatePatcher::severalFields_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<Mutation>("edit");
    for (const QString &file : templateFiles()) {
        const auto t = load(readAll(file), QFileInfo(file).path());
        QVERIFY(t);
        const auto edits = fieldEdits(*t);
        // The same picks every run: a failure can be looked at again.
        QRandomGenerator random(quint32(qHash(QFileInfo(file).fileName())));
        for (int n = 0; n < 12; ++n) {
            QStringList fields;
            QList<Mutation> picked;
            for (int k = 0; k < 4; ++k) {
                const auto &[field, edit] = edits.at(random.bounded(int(edits.size())));
                if (!fields.contains(field)) {
                    fields.append(field);
                    picked.append(edit);
                }
            }
            QTest::newRow(qPrintable(QFileInfo(file).completeBaseName() + u' ' +
                                     fields.join(QStringLiteral(", "))))
                << file << Mutation([picked](ClusterTemplate &t) {
                       for (const Mutation &m : picked)
                           m(t);
                   });
        }
    }
}

// Several fields changed at once: still a patch that means the edited template, and a patch
// back that means the original.
void TestTemplatePatcher::severalFields()
{
    QFETCH(QString, file);
    QFETCH(Mutation, edit);
    const auto f = editFile(file, edit);
    QVERIFY(f);
    const auto &[dir, original, loaded, edited, patched] = *f;
    QVERIFY2(patched, qPrintable(patched ? QString() : patched.error().toString()));
    const auto expected = load(TemplateWriter::toYaml(edited), dir);
    if (!expected) // e.g. min above count: the editor shows the problem; nothing to compare
        QSKIP("these edits together make a template the loader refuses");
    const auto reloaded = load(*patched, dir);
    QVERIFY2(reloaded, patched->constData());
    QCOMPARE(*reloaded, *expected);
    const auto back = TemplatePatcher::patch(*patched, *reloaded, loaded, dir);
    QVERIFY(back);
    QCOMPARE(*load(*back, dir), *load(TemplateWriter::toYaml(loaded), dir));
    // The comments of the file are all still there.
    for (const QByteArray &line : original.split('\n')) {
        if (line.trimmed().startsWith('#'))
            QVERIFY2(patched->contains(line), line.constData());
    }
}

// One field changed in the form changes that field's lines and nothing else; edited back, the
// file is what it was, byte for byte.
void TestTemplatePatcher::oneField()
{
    QFETCH(QString, file);
    QFETCH(QString, field);
    QFETCH(Mutation, edit);
    const auto f = editFile(file, edit);
    QVERIFY(f);
    const auto &[dir, original, loaded, edited, patched] = *f;
    QVERIFY(edited != loaded);
    QVERIFY2(patched, qPrintable(patched ? QString() : patched.error().toString()));
    QVERIFY(*patched != original);

    // It means the edited template (when that is a valid one: a count above max is not).
    const auto expected = load(TemplateWriter::toYaml(edited), dir);
    if (expected) {
        const auto reloaded = load(*patched, dir);
        QVERIFY2(reloaded, patched->constData());
        QCOMPARE(*reloaded, *expected);
    }

    // Exactly the field's lines changed. An anchor's edit may also turn its aliases (`task: *tf`)
    // into values of their own: those lines may change too.
    const QByteArrayList before = original.split('\n');
    const QByteArrayList after = patched->split('\n');
    const LineDiff diff = diffLines(before, after);
    const FieldLines lines = fieldLines(original, field);
    static const QRegularExpression alias(QStringLiteral(R"(^\s*(- )?\w+: \*\w+\s*$)"));
    const bool aliasChanged = std::any_of(diff.removed.cbegin(), diff.removed.cend(), [&](int r) {
        return alias.match(QString::fromUtf8(before[r])).hasMatch();
    });
    if (!lines.missing.isEmpty() && !aliasChanged) {
        // A field the text did not have: its lines are inserted, in one place, nothing else.
        QVERIFY2(diff.removed.isEmpty(), qPrintable(show(diff.removed) + u'\n' + *patched));
        QVERIFY(!diff.added.isEmpty());
        QCOMPARE(diff.added.last() - diff.added.first() + 1, diff.added.size());
        QVERIFY2(after[diff.added.first()].trimmed().startsWith(lines.missing.toUtf8().append(':')),
                 qPrintable(QString::fromUtf8(*patched)));
    }
    const int first = lines.missing.isEmpty() ? lines.first : diff.added.value(0);
    const int last = lines.missing.isEmpty() ? lines.last : diff.added.value(0);
    for (int l : diff.removed) {
        const bool inField = l >= first && l <= last;
        const bool anAlias = alias.match(QString::fromUtf8(before[l])).hasMatch();
        QVERIFY2(inField || anAlias,
                 qPrintable(QStringLiteral("line %1 changed, outside %2 (lines %3-%4):\n%5")
                                .arg(l + 1)
                                .arg(field)
                                .arg(first + 1)
                                .arg(last + 1)
                                .arg(QString::fromUtf8(*patched))));
    }
    // What was added sits where the field is (or, for a new key, right after its neighbours).
    for (int l : diff.added) {
        QVERIFY2(aliasChanged ||
                     (l >= first && l <= last + qsizetype(after.size() - before.size()) + 1),
                 qPrintable(
                     QStringLiteral("added line %1 is not at %2 (lines %3-%4); removed %5, "
                                    "added %6:\n%7")
                         .arg(l + 1)
                         .arg(field)
                         .arg(first + 1)
                         .arg(last + 1)
                         .arg(show(diff.removed), show(diff.added), QString::fromUtf8(*patched))));
    }

    // Reverting the form gives the file back: from the original (what the editor does) and from
    // the patched text itself. A key that was added stays, with the old value: it cannot tell
    // that it was implicit before; nor can an alias that became a value become an alias again.
    const auto same = TemplatePatcher::patch(original, loaded, loaded, dir);
    QVERIFY(same);
    QCOMPARE(*same, original);
    const bool aliasBecameValue = patched->count(": *") < original.count(": *");
    if (expected && (!lines.missing.isEmpty() || aliasBecameValue)) {
        const auto reverted = TemplatePatcher::patch(*patched, *load(*patched, dir), loaded, dir);
        QVERIFY(reverted);
        QCOMPARE(*load(*reverted, dir), loaded);
    } else if (expected) {
        const auto reverted = TemplatePatcher::patch(*patched, *load(*patched, dir), loaded, dir);
        QVERIFY2(reverted, qPrintable(reverted ? QString() : reverted.error().toString()));
        QVERIFY2(*reverted == original,
                 qPrintable(QStringLiteral("edited:\n%1\nreverted:\n%2")
                                .arg(QString::fromUtf8(*patched), QString::fromUtf8(*reverted))));
    }
}

void TestTemplatePatcher::rolesReshaped_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<Mutation>("edit");
    QTest::addColumn<bool>("sameLines"); // a move keeps every line, in another order
    for (const QString &file : templateFiles()) {
        const QString name = QFileInfo(file).completeBaseName();
        QTest::newRow(qPrintable(name + QStringLiteral(" move last role up")))
            << file << Mutation([](ClusterTemplate &t) {
                   t.roles.swapItemsAt(t.roles.size() - 2, t.roles.size() - 1);
               })
            << true;
        QTest::newRow(qPrintable(name + QStringLiteral(" remove last role")))
            << file << Mutation([](ClusterTemplate &t) { t.roles.removeLast(); }) << false;
        QTest::newRow(qPrintable(name + QStringLiteral(" add a role")))
            << file << Mutation([](ClusterTemplate &t) {
                   RoleTemplate r;
                   r.name = QStringLiteral("extra");
                   r.task.image = QStringLiteral("clusterdeck/lab:latest");
                   r.task.command = {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                     QStringLiteral("echo one\necho two\n")};
                   t.roles.append(r);
               })
            << false;
    }
}

// Roles added, removed and reordered: the roles list changes, the rest of the file does not.
void TestTemplatePatcher::rolesReshaped()
{
    QFETCH(QString, file);
    QFETCH(Mutation, edit);
    QFETCH(bool, sameLines);
    const auto f = editFile(file, edit);
    QVERIFY(f);
    const auto &[dir, original, loaded, edited, patched] = *f;
    QVERIFY2(patched, qPrintable(patched ? QString() : patched.error().toString()));
    const auto reloaded = load(*patched, dir);
    QVERIFY2(reloaded, patched->constData());
    QCOMPARE(*reloaded, *load(TemplateWriter::toYaml(edited), dir));

    const qsizetype rolesAt = original.indexOf("\nroles:");
    QVERIFY(rolesAt > 0);
    // Everything above the roles stays (the docs' example has nothing below them).
    QCOMPARE(patched->left(rolesAt), original.left(rolesAt));
    const bool aliases = original.contains(": *");
    if (sameLines && !aliases) {
        QByteArrayList a = original.split('\n'), b = patched->split('\n');
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        QCOMPARE(b, a);
    }
    const LineDiff diff = diffLines(original.split('\n'), patched->split('\n'));
    if (edited.roles.size() > loaded.roles.size())
        QVERIFY2(diff.removed.isEmpty(), qPrintable(show(diff.removed)));
    if (edited.roles.size() < loaded.roles.size() && !aliases)
        QVERIFY2(diff.added.isEmpty(), qPrintable(show(diff.added)));
    // A new role's script is a block scalar, as in the samples.
    if (edited.roles.size() > loaded.roles.size())
        QVERIFY2(patched->contains("command: |\n"), patched->constData());
}

void TestTemplatePatcher::scalarKeepsItsQuoting()
{
    const QByteArray yaml = "apiVersion: clusterdeck/v1\n"
                            "kind: Cluster\n"
                            "name: 'quoted'   # single quotes\n"
                            "description: \"double\"\n"
                            "roles:\n"
                            "  - name: main\n"
                            "    task:\n"
                            "      image: clusterdeck/lab:latest\n"
                            "      env: {A: \"1\", B: two}\n";
    const auto f = editText(yaml, {}, [](ClusterTemplate &t) {
        t.name = QStringLiteral("it's");
        t.description = QStringLiteral("say \"hi\"");
        t.roles[0].task.env.insert(QStringLiteral("C"), QStringLiteral("x, y"));
    });
    QVERIFY(f && f->patched);
    const auto &patched = f->patched;
    QCOMPARE(QString::fromUtf8(*patched),
             QStringLiteral("apiVersion: clusterdeck/v1\n"
                            "kind: Cluster\n"
                            "name: 'it''s'   # single quotes\n"
                            "description: \"say \\\"hi\\\"\"\n"
                            "roles:\n"
                            "  - name: main\n"
                            "    task:\n"
                            "      image: clusterdeck/lab:latest\n"
                            "      env: {A: \"1\", B: two, C: \"x, y\"}\n"));
}

void TestTemplatePatcher::multiLineScriptBecomesBlockScalar()
{
    // A one-line script given as a string grows a second line: a `|` block at the key's depth.
    const QByteArray yaml = "apiVersion: clusterdeck/v1\n"
                            "kind: Cluster\n"
                            "name: s\n"
                            "roles:\n"
                            "  - name: main\n"
                            "    task:\n"
                            "      image: clusterdeck/lab:latest\n"
                            "      command: \"echo one\"  # the job\n"
                            "      user: nobody\n";
    const auto f = editText(yaml, {}, [](ClusterTemplate &t) {
        t.roles[0].task.command[2] = QStringLiteral("echo one\necho two\n");
    });
    QVERIFY(f && f->patched);
    const auto &patched = f->patched;
    QCOMPARE(QString::fromUtf8(*patched), QStringLiteral("apiVersion: clusterdeck/v1\n"
                                                         "kind: Cluster\n"
                                                         "name: s\n"
                                                         "roles:\n"
                                                         "  - name: main\n"
                                                         "    task:\n"
                                                         "      image: clusterdeck/lab:latest\n"
                                                         "      command: |  # the job\n"
                                                         "        echo one\n"
                                                         "        echo two\n"
                                                         "      user: nobody\n"));
}

void TestTemplatePatcher::multiLineValueWithoutBlockForm_data()
{
    QTest::addColumn<QString>("description");
    QTest::addColumn<QString>("written");
    // A `|` block takes its indentation from its first line of text, and its chomping can keep
    // one final newline or none: other values are written double-quoted.
    QTest::newRow("first line indented") << "\n  deeper\nshallower"
                                         << "\"\\n  deeper\\nshallower\"";
    QTest::newRow("two final newlines") << "a\nb\n\n"
                                        << "\"a\\nb\\n\\n\"";
    QTest::newRow("a line of blanks") << "a\n   \nb"
                                      << "\"a\\n   \\nb\"";
    QTest::newRow("block") << "a\n  b\n"
                           << "|\n  a\n    b";
    QTest::newRow("block without final newline") << "a\nb"
                                                 << "|-\n  a\n  b";
}

void TestTemplatePatcher::multiLineValueWithoutBlockForm()
{
    QFETCH(QString, description);
    QFETCH(QString, written);
    const QByteArray yaml = "apiVersion: clusterdeck/v1\n"
                            "kind: Cluster\n"
                            "name: d\n"
                            "description: one line\n"
                            "roles:\n"
                            "  - name: main\n"
                            "    task:\n"
                            "      image: clusterdeck/lab:latest\n";
    const auto f =
        editText(yaml, {}, [&description](ClusterTemplate &t) { t.description = description; });
    QVERIFY(f);
    const auto &patched = f->patched;
    QVERIFY2(patched, qPrintable(patched ? QString() : patched.error().toString()));
    QVERIFY2(patched->contains(QByteArray("description: " + written.toUtf8() + "\nroles:")),
             patched->constData());
    QCOMPARE(load(*patched, {})->description, description);
}

void TestTemplatePatcher::aliasOfEditedAnchorKeepsItsValue()
{
    const QString file = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                         QStringLiteral("/templates/tensorflow.yaml");
    const QByteArray original = readAll(file);
    const auto loaded = load(original, {});
    QVERIFY(loaded);
    ClusterTemplate edited = *loaded;
    edited.roles[0].task.image = QStringLiteral("tensorflow/tensorflow:2.16.1");
    const auto patched = TemplatePatcher::patch(original, *loaded, edited);
    QVERIFY(patched);
    const auto reloaded = load(*patched, {});
    QVERIFY(reloaded);
    QCOMPARE(*reloaded, edited);
    // The chief's image line changed in place; the others keep the old image as values of
    // their own: copies of the anchored text, in its order and style.
    QVERIFY(patched->contains("    task: &tf\n      image: tensorflow/tensorflow:2.16.1\n"));
    QCOMPARE(reloaded->roles[1].task.image, loaded->roles[1].task.image);
    const QByteArray copy = "    task:\n"
                            "      image: tensorflow/tensorflow:2.15.0\n"
                            "      workingDir: /workspace\n"
                            "      command: [python3, train.py]\n"
                            "      mounts:\n"
                            "        - tf-code:/workspace:ro\n";
    QCOMPARE(patched->count(copy), 2);
    QVERIFY(!patched->contains("*tf"));
}

void TestTemplatePatcher::aliasMovedBeforeItsAnchorCopiesIt()
{
    // pytorch-ddp's worker (`task: *trainer`) moved above the master that anchors it: it takes
    // the anchored text along, `>-` script included; nothing else changes.
    const QString file = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                         QStringLiteral("/templates/pytorch-ddp.yaml");
    const auto f = editFile(file, [](ClusterTemplate &t) { t.roles.swapItemsAt(0, 1); });
    QVERIFY(f);
    QVERIFY(f->patched);
    const QByteArray &patched = *f->patched;
    QCOMPARE(*load(patched, f->dir), f->edited);
    const qsizetype worker = patched.indexOf("  - name: worker\n");
    const qsizetype master = patched.indexOf("  - name: master\n");
    QVERIFY(worker > 0 && worker < master);
    const QByteArray workerText = patched.mid(worker, master - worker);
    QVERIFY2(workerText.contains(
                 "    task:\n      image: pytorch/pytorch:2.2.2-cuda12.1-cudnn8-runtime\n"
                 "      workingDir: /workspace\n"
                 "      command:\n"
                 "        - /bin/sh\n"
                 "        - -c\n"
                 "        - >-\n"),
             workerText.constData());
    QVERIFY(patched.contains("    task: &trainer\n")); // the master keeps its anchor
    QCOMPARE(patched.left(patched.indexOf("roles:\n")),
             f->original.left(f->original.indexOf("roles:\n")));
}

void TestTemplatePatcher::unparsableOriginalIsAnError()
{
    ClusterTemplate t;
    t.name = QStringLiteral("x");
    ClusterTemplate edited = t;
    edited.name = QStringLiteral("y");
    const auto patched = TemplatePatcher::patch("name: [unclosed\n", t, edited);
    QVERIFY(!patched);
    QVERIFY(patched.error().message.contains(QStringLiteral("cannot patch")));
}

QTEST_GUILESS_MAIN(TestTemplatePatcher)
#include "tst_templatepatcher.moc"
