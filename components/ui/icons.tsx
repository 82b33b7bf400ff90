import {
  ArrowDown,
  Ban,
  Bell,
  Book,
  Check,
  ChevronRight,
  Clock,
  Copy,
  Download,
  File,
  List,
  LoaderCircle,
  Menu,
  MessageCircle,
  NotebookText,
  Paperclip,
  PenLine,
  Plus,
  Puzzle,
  RotateCw,
  Settings,
  Shield,
  Square,
  Trash,
  Users,
  X,
  type LucideIcon,
} from "lucide-react";

/**
 * The app's icons, one module on lucide-react: each is named for what it means here, drawn at one
 * of the sizes the app uses, and hidden from assistive technology (the control that holds it
 * carries the name). Pass `className` for colour or motion.
 */
const SIZES = { xs: "size-3", sm: "size-3.5", md: "size-4", lg: "size-5" } as const;

export type TIconSize = keyof typeof SIZES;
export type TIconProps = { size?: TIconSize; className?: string; strokeWidth?: number };

function appIcon(Glyph: LucideIcon, defaults: { strokeWidth?: number; className?: string } = {}) {
  function Icon({ size = "md", className, strokeWidth }: TIconProps) {
    return (
      <Glyph
        aria-hidden="true"
        focusable="false"
        strokeWidth={strokeWidth ?? defaults.strokeWidth ?? 2}
        className={["shrink-0", SIZES[size], defaults.className, className].filter(Boolean).join(" ")}
      />
    );
  }
  Icon.displayName = `${Glyph.displayName ?? "Lucide"}Icon`;
  return Icon;
}

export const AddIcon = appIcon(Plus);
export const AgentsIcon = appIcon(Users);
export const AttachIcon = appIcon(Paperclip);
export const BellIcon = appIcon(Bell);
export const BookIcon = appIcon(Book);
export const ChatIcon = appIcon(MessageCircle);
export const CheckIcon = appIcon(Check);
export const ClockIcon = appIcon(Clock);
export const CloseIcon = appIcon(X);
export const CopyIcon = appIcon(Copy);
export const DeniedIcon = appIcon(Ban);
export const DisclosureIcon = appIcon(ChevronRight);
export const DownloadIcon = appIcon(Download);
export const EditIcon = appIcon(PenLine);
export const FileIcon = appIcon(File);
export const JumpDownIcon = appIcon(ArrowDown);
export const MenuIcon = appIcon(Menu);
export const PluginIcon = appIcon(Puzzle);
export const RefreshIcon = appIcon(RotateCw);
export const SettingsIcon = appIcon(Settings);
export const ShieldIcon = appIcon(Shield);
export const SkillsIcon = appIcon(NotebookText);
export const SpinnerIcon = appIcon(LoaderCircle, { className: "animate-spin" });
export const StepsIcon = appIcon(List);
/** Filled: the square of a Stop button. */
export const StopIcon = appIcon(Square, { className: "fill-current" });
export const TrashIcon = appIcon(Trash);
