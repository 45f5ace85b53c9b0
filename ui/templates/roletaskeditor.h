#pragma once

#include "keyvaluetable.h"
#include "mountstable.h"
#include "portstable.h"
#include "template/clustertemplate.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QTabWidget;

namespace ClusterDeck::Ui {

// Edits one role of a cluster template in the visual editor: its counts and every field of its
// task (image, command, resources, env, mounts, service ports, bootstrap script, and under More:
// pull policy, GPUs, user, working directory, entrypoint, on-scale hook, bind address, labels),
// the role's host labels, and under Overrides the role's own env, ports and resources over the
// task's. The template editor shows the role selected in its roles table here and takes role()
// back on edited().
// The memory size is kept as typed (memoryText()), so a wrong spelling reaches the YAML and its
// diagnostic instead of silently vanishing.
class ScriptEdit;

// The command is a shell script (`/bin/sh -c SCRIPT`, `command: |` in the samples) shown as the
// script in a ScriptEdit, or an argument list shown one argument per line: neither is ever shown
// quoted or escaped.
class RoleTaskEditor : public QWidget
{
    Q_OBJECT

public:
    enum EnvColumn { EnvKey, EnvValue, EnvColumns };
    enum CommandKind { ScriptCommand, ArgumentsCommand };

    explicit RoleTaskEditor(QWidget *parent = nullptr);

    // Shows `role`; widgets whose value is already equal are left alone (cursor, selection).
    void setRole(const RoleTemplate &role, const QString &memoryText);
    // Nothing to edit (no role selected).
    void clear();
    bool hasRole() const { return m_hasRole; }
    // The role given to setRole() with the widgets' values applied.
    RoleTemplate role() const;
    QString memoryText() const;

    void setKnownImages(const QStringList &images);
    // Asks the registry named in the image box for the repository's tags (off the GUI thread)
    // and offers them beside the hosts' images. Docker Hub is not asked.
    void offerRegistryTags();

    // Highlights the widget of `path` (relative to the role: "task.env.FOO", "task.ports[0]",
    // "max") with `message` as tooltip; false when no widget here shows that field.
    bool markField(const QString &path, const QString &message);
    void clearMarks();

    // `[/bin/sh, -c, SCRIPT]` (or bash): a command the form shows as a script.
    static bool isShellScript(const QStringList &command);
    // The words of a one-line script, for turning it into an argument list; and back, quoted
    // for the shell. Only switching the command's kind converts.
    static QStringList splitCommand(const QString &line);
    static QString shellQuoted(const QStringList &args);

    QComboBox *imageCombo() const { return m_image; }
    QComboBox *commandKindCombo() const { return m_commandKind; }
    QPlainTextEdit *commandScriptEdit() const;
    QPlainTextEdit *commandArgumentsEdit() const { return m_commandArgs; }
    QSpinBox *minSpin() const { return m_min; }
    QSpinBox *maxSpin() const { return m_max; }
    QSpinBox *countSpin() const { return m_count; }
    QDoubleSpinBox *cpusSpin() const { return m_cpus; }
    QLineEdit *memoryEdit() const { return m_memory; }
    QTableWidget *envTable() const { return m_env; }
    MountsTable *mountsTable() const { return m_mounts; }
    PortsTable *portsTable() const { return m_ports; }
    QPlainTextEdit *bootstrapEdit() const;
    QTabWidget *sections() const { return m_sections; }
    // The More page: the task's less common fields, and the role's placement.
    QComboBox *pullPolicyCombo() const { return m_pullPolicy; }
    QSpinBox *gpusSpin() const { return m_gpus; }
    QLineEdit *userEdit() const { return m_user; }
    QLineEdit *workingDirEdit() const { return m_workingDir; }
    QPlainTextEdit *entrypointEdit() const { return m_entrypoint; }
    QLineEdit *onScaleEdit() const { return m_onScale; }
    QLineEdit *bindAddressEdit() const { return m_bindAddress; }
    QTableWidget *labelsTable() const { return m_labels; }
    QTableWidget *hostLabelsTable() const { return m_hostLabels; }
    QPushButton *inlineButton() const { return m_inline; }
    // The Overrides page: the role's own env, ports and resources over its task's (overrides:),
    // editable also when the task comes from a file shared with other roles.
    KeyValueTable *overrideEnvTable() const { return m_overrideEnv; }
    PortsTable *overridePortsTable() const { return m_overridePorts; }
    QDoubleSpinBox *overrideCpusSpin() const { return m_overrideCpus; }
    QLineEdit *overrideMemoryEdit() const { return m_overrideMemory; }
    QSpinBox *overrideGpusSpin() const { return m_overrideGpus; }

Q_SIGNALS:
    void edited();

private:
    void buildUi();
    void changed();
    // The selected row of one of the tables, as its Remove button does.
    void removeCurrentRow(FormTable *table);
    void updateTaskFileState();
    void showCommand(const QStringList &command);
    QStringList shownCommand() const;
    void commandKindChosen(int kind);
    void setEnv(const QMap<QString, QString> &env);
    QWidget *buildMorePage();
    QWidget *buildOverridesPage();
    QMap<QString, QString> env() const;
    void setOverrides(const RoleOverrides &overrides, bool otherRole);
    RoleOverrides overrides() const;
    void markWidget(QWidget *widget, const QString &message);
    void markRow(QTableWidget *table, int row, const QString &message);
    // The row of a key/value table whose key is `key`, or the whole table when none is.
    void markKey(QTableWidget *table, const QString &key, const QString &message);

    RoleTemplate m_base;
    bool m_hasRole = false;
    bool m_updating = false;
    QList<QPointer<QWidget>> m_marked; // cell widgets go away with their rows
    QList<QTableWidget *> m_markedTables;

    QGroupBox *m_box = nullptr;
    QLabel *m_taskFileNote = nullptr;
    QPushButton *m_inline = nullptr;
    QComboBox *m_image = nullptr;
    QString m_tagsAskedFor; // the repository whose registry tags the image box offers
    QLabel *m_commandLabel = nullptr;
    QComboBox *m_commandKind = nullptr;
    QStackedWidget *m_commandPages = nullptr;
    ScriptEdit *m_commandScript = nullptr;
    QPlainTextEdit *m_commandArgs = nullptr;
    QSpinBox *m_min = nullptr;
    QSpinBox *m_max = nullptr;
    QSpinBox *m_count = nullptr;
    QDoubleSpinBox *m_cpus = nullptr;
    QLineEdit *m_memory = nullptr;
    QTabWidget *m_sections = nullptr;
    QComboBox *m_pullPolicy = nullptr;
    QSpinBox *m_gpus = nullptr;
    QLineEdit *m_user = nullptr;
    QLineEdit *m_workingDir = nullptr;
    QPlainTextEdit *m_entrypoint = nullptr;
    QLineEdit *m_onScale = nullptr;
    QLineEdit *m_bindAddress = nullptr;
    KeyValueTable *m_labels = nullptr;
    KeyValueTable *m_hostLabels = nullptr;
    QWidget *m_taskMore = nullptr; // the task's part of the More page
    KeyValueTable *m_env = nullptr;
    MountsTable *m_mounts = nullptr;
    PortsTable *m_ports = nullptr;
    KeyValueTable *m_overrideEnv = nullptr;
    PortsTable *m_overridePorts = nullptr;
    QDoubleSpinBox *m_overrideCpus = nullptr;
    QLineEdit *m_overrideMemory = nullptr;
    QSpinBox *m_overrideGpus = nullptr;
    QWidget *m_overridesPage = nullptr;
    QWidget *m_morePage = nullptr;
    ScriptEdit *m_bootstrap = nullptr;
};

} // namespace ClusterDeck::Ui
