"use client";

import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { IconButton } from "./button";

/**
 * Full-size images (browser screenshots, attached pictures) in a modal on the native <dialog>:
 * the browser traps focus, Escape closes it and focus returns to the thumbnail. The image first
 * fits the screen; Zoom in / Zoom out (or + and −, 0 to fit) and a tap on the image enlarge it,
 * and the enlarged image scrolls (or pans with a finger) inside the dialog.
 */
type TImage = { src: string; alt: string };

const LightboxContext = createContext<(image: TImage) => void>(() => {});

const ZOOMS = [1, 1.5, 2, 3, 4];

export function useLightbox() {
  return useContext(LightboxContext);
}

export function LightboxProvider({ children }: { children: ReactNode }) {
  const [image, setImage] = useState<TImage>();
  const [zoom, setZoom] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);

  const open = useCallback((next: TImage) => {
    setImage(next);
    setZoom(0);
  }, []);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (image && !element.open) element.showModal();
    else if (!image && element.open) element.close();
  }, [image]);

  const zoomIn = () => setZoom((current) => Math.min(ZOOMS.length - 1, current + 1));
  const zoomOut = () => setZoom((current) => Math.max(0, current - 1));
  const scale = ZOOMS[zoom]!;

  return (
    <LightboxContext.Provider value={open}>
      {children}
      <dialog
        ref={dialog}
        aria-label={image ? `Image: ${image.alt}` : "Image"}
        data-testid="lightbox"
        onClose={() => setImage(undefined)}
        onKeyDown={(event) => {
          if (event.key === "+" || event.key === "=") zoomIn();
          else if (event.key === "-") zoomOut();
          else if (event.key === "0") setZoom(0);
        }}
        className="m-0 h-dvh max-h-none w-dvw max-w-none bg-neutral-950/95 p-0 text-white backdrop:bg-neutral-950/80"
      >
        {image ? (
          <div className="flex h-full flex-col">
            <div className="flex shrink-0 items-center gap-2 px-3 py-2">
              <p className="min-w-0 flex-1 truncate text-sm">{image.alt}</p>
              <LightboxButton label="Zoom out" onClick={zoomOut} disabled={zoom === 0}>
                −
              </LightboxButton>
              <span className="w-12 text-center font-mono text-xs" aria-live="polite">
                {zoom === 0 ? "Fit" : `${Math.round(scale * 100)}%`}
              </span>
              <LightboxButton label="Zoom in" onClick={zoomIn} disabled={zoom === ZOOMS.length - 1}>
                +
              </LightboxButton>
              <LightboxButton label="Close" onClick={() => setImage(undefined)}>
                ✕
              </LightboxButton>
            </div>
            <div className="min-h-0 flex-1 overflow-auto overscroll-contain" data-testid="lightbox-viewport">
              {/* A data or blob URL shown as it is: next/image adds nothing for those. */}
              {/* eslint-disable-next-line @next/next/no-img-element */}
              <img
                src={image.src}
                alt={image.alt}
                onClick={() => (zoom === 0 ? setZoom(2) : setZoom(0))}
                style={zoom === 0 ? undefined : { width: `${scale * 100}%`, maxWidth: "none" }}
                className={zoom === 0 ? "mx-auto h-full w-full cursor-zoom-in object-contain" : "mx-auto block cursor-zoom-out"}
              />
            </div>
          </div>
        ) : null}
      </dialog>
    </LightboxContext.Provider>
  );
}

function LightboxButton({ label, onClick, disabled, children }: { label: string; onClick: () => void; disabled?: boolean; children: ReactNode }) {
  return (
    <IconButton label={label} onClick={onClick} disabled={disabled} className="grid size-10 place-items-center rounded-lg text-lg hover:bg-white/10 focus-visible:outline-2 focus-visible:outline-blue-400 disabled:opacity-40">
      {children}
    </IconButton>
  );
}
