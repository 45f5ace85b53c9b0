#pragma once

#include "keyvaluetable.h"
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
// pull policy, GPUs, user, working directory, entrypoint, on-scale hook, bind address, labels)
// and the role's host labels. The template
// editor shows the role selected in its roles table here and takes role() back on edited().
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
    enum MountColumn {
        MountType,
        MountSource,
        MountTarget,
        MountReadOnly,
        MountDriver,
        MountDriverOptions,
        MountColumns
    };
    enum PortColumn { PortName, PortProtocol, PortNumber, PortColumns };
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
    QTableWidget *mountsTable() const { return m_mounts; }
    QTableWidget *portsTable() const { return m_ports; }
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

Q_SIGNALS:
    void edited();

private:
    void buildUi();
    void changed();
    // The selected row of one of the tables, as its Remove button does.
    void removeCurrentRow(QTableWidget *table);
    void updateTaskFileState();
    void showCommand(const QStringList &command);
    QStringList shownCommand() const;
    void commandKindChosen(int kind);
    void setEnv(const QMap<QString, QString> &env);
    QWidget *buildMorePage();
    void setMounts(const QList<Mount> &mounts);
    void setPorts(const QList<ServicePort> &ports);
    QMap<QString, QString> env() const;
    QList<Mount> mounts() const;
    QList<ServicePort> ports() const;
    // Rows that hold an entry (blank rows are skipped), in order: entry i is row rows.at(i).
    QList<int> usedMountRows() const;
    QList<int> usedPortRows() const;
    void addMountRow(const Mount &mount);
    void addPortRow(const ServicePort &port);
    void markWidget(QWidget *widget, const QString &message);
    void markRow(QTableWidget *table, int row, const QString &message);

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
    QTableWidget *m_mounts = nullptr;
    QTableWidget *m_ports = nullptr;
    ScriptEdit *m_bootstrap = nullptr;
};

} // namespace ClusterDeck::Ui
