//! What the device rigs (Android, iOS) share: their action result, and the mapping of a
//! point of the latest (scaled) screenshot to the device's pixels, refusing points off
//! the screen.

use serde::Serialize;

use crate::output::{fit_scale, Scaled, Untrusted};
use crate::RigError;

/// The result of one device action.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DeviceOutput {
    pub summary: String,
    /// Text from the device (a UI dump, a command's output, the clipboard), fenced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Untrusted>,
    /// A screenshot, scaled to fit 1366x768.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<Scaled>,
    /// Check-in: what the device is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<DeviceInfo>,
    /// A device command's exit status, when the device reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

/// A device's check-in: who it is and its screen.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DeviceInfo {
    /// The ADB serial or the simulator's UDID.
    pub id: String,
    pub model: String,
    pub os_version: String,
    /// The screen in real pixels.
    pub screen_width: u32,
    pub screen_height: u32,
    /// The scale of the screenshots this rig returns (returned / real).
    pub screenshot_scale: f64,
    /// Properties the device reports (Android: getprop; iOS: WebDriverAgent's status).
    pub properties: Vec<(String, String)>,
    /// Every device the ADB server lists, with its state (Android).
    pub devices: Vec<(String, String)>,
}

/// How points of the returned screenshots map to the device: the latest screenshot's
/// scale and real size, or (before any screenshot) the scale a screenshot of the screen
/// would get.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenMap {
    pub scale: f64,
    pub real_width: u32,
    pub real_height: u32,
    /// The size of the screenshot as returned (what callers' coordinates refer to).
    pub width: u32,
    pub height: u32,
}

impl ScreenMap {
    /// The map of a screen of `w`x`h` real pixels, not captured yet.
    /// (The same sizes and scale [`crate::output::scale_png`] gives a capture of it.)
    pub fn of_screen(w: u32, h: u32) -> ScreenMap {
        let fit = fit_scale(w, h);
        if fit >= 1.0 {
            return ScreenMap { scale: 1.0, real_width: w, real_height: h, width: w, height: h };
        }
        let nw = ((w as f64 * fit).round() as u32).max(1);
        let nh = ((h as f64 * fit).round() as u32).max(1);
        ScreenMap { scale: nw as f64 / w.max(1) as f64, real_width: w, real_height: h, width: nw, height: nh }
    }

    pub fn of_shot(s: &Scaled) -> ScreenMap {
        ScreenMap {
            scale: s.scale,
            real_width: s.real_width,
            real_height: s.real_height,
            width: s.width,
            height: s.height,
        }
    }

    /// A point of the returned screenshot in real pixels; a point off the screen is an
    /// `invalid_input` naming the field.
    pub fn to_real(&self, fx: &'static str, fy: &'static str, x: f64, y: f64) -> Result<(u32, u32), RigError> {
        let (w, h) = (self.width, self.height);
        for (field, v, max) in [(fx, x, w), (fy, y, h)] {
            if !v.is_finite() || v < 0.0 || v >= max as f64 {
                return Err(RigError::invalid(
                    field,
                    format!(
                        "{v} is off the screen: the screenshot is {w}x{h} (x in 0..{w}, y in 0..{h}; scale {:.4} of the real {}x{})",
                        self.scale, self.real_width, self.real_height
                    ),
                ));
            }
        }
        Ok(crate::output::to_real(self.scale, self.real_width, self.real_height, x, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_map_to_real_pixels_and_off_screen_names_the_field() {
        // A 1080x2400 phone: the screenshot is bounded by the height (768 / 2400 = 0.32).
        let m = ScreenMap::of_screen(1080, 2400);
        assert_eq!((m.width, m.height), (346, 768));
        assert_eq!(m.to_real("x", "y", 100.0, 200.0).unwrap(), (312, 624));
        // The same map as a capture of that screen gets.
        let img = image::RgbImage::from_pixel(1080, 2400, image::Rgb([0, 0, 0]));
        let mut png = std::io::Cursor::new(Vec::new());
        image::DynamicImage::ImageRgb8(img).write_to(&mut png, image::ImageFormat::Png).unwrap();
        assert_eq!(ScreenMap::of_shot(&crate::output::scale_png(png.get_ref()).unwrap()), m);
        let e = m.to_real("x", "y", 346.0, 10.0).unwrap_err();
        assert_eq!(e.kind(), "invalid_input");
        assert!(e.to_string().starts_with("x: 346 is off the screen: the screenshot is 346x768"), "{e}");
        let e = m.to_real("to_x", "to_y", 10.0, -1.0).unwrap_err();
        assert!(e.to_string().starts_with("to_y: -1 is off the screen"), "{e}");
        assert!(m.to_real("x", "y", f64::NAN, 1.0).is_err());
        // A small screen is not scaled.
        assert_eq!(ScreenMap::of_screen(320, 480).to_real("x", "y", 319.0, 479.0).unwrap(), (319, 479));
    }
}
